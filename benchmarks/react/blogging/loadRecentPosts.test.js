import React from 'react';
import { render, fireEvent, waitFor, screen } from '@testing-library/react';
import '@testing-library/jest-dom';
import fetchMock from 'fetch-mock';
import { act } from 'react';
import App from './loadRecentPosts';

afterEach(() => {
  fetchMock.reset();
  fetchMock.restore();
});

test('lists the most recent posts on load', async () => {
  fetchMock.get('/api/posts/recent', [
    { id: 1, title: 'Five tips for sourdough' },
    { id: 2, title: 'Why I switched to Linux' },
  ]);

  await act(async () => { render(<App />); });

  expect(fetchMock.called('/api/posts/recent')).toBe(true);
  expect(screen.getByText('Five tips for sourdough')).toBeInTheDocument();
  expect(screen.getByText('Why I switched to Linux')).toBeInTheDocument();
  expect(screen.getAllByTestId('post-item')).toHaveLength(2);
}, 10000);

test('shows an error message when recent posts cannot be loaded', async () => {
  fetchMock.get('/api/posts/recent', { status: 500, body: { error: 'Internal error' } });

  await act(async () => { render(<App />); });

  expect(fetchMock.called('/api/posts/recent')).toBe(true);
  expect(screen.getByText(/could not load posts/i)).toBeInTheDocument();
  expect(screen.queryAllByTestId('post-item')).toHaveLength(0);
}, 10000);
