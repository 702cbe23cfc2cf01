import React from 'react';
import { render, fireEvent, waitFor, screen } from '@testing-library/react';
import '@testing-library/jest-dom';
import fetchMock from 'fetch-mock';
import { act } from 'react';
import CategoryFilter from './CategoryFilter';

afterEach(() => {
  fetchMock.reset();
  fetchMock.restore();
});

test('loads the posts of the chosen category', async () => {
  fetchMock.get('/api/posts?category=travel', [
    { id: 11, title: 'A week in Lisbon' },
    { id: 12, title: 'Night trains of Europe' },
  ]);

  await act(async () => { render(<CategoryFilter />); });
  await act(async () => {
    fireEvent.change(screen.getByTestId('category-select'), { target: { value: 'travel' } });
  });

  expect(fetchMock.called('/api/posts?category=travel')).toBe(true);
  expect(screen.getByText('A week in Lisbon')).toBeInTheDocument();
  expect(screen.getByText('Night trains of Europe')).toBeInTheDocument();
}, 10000);

test('shows an error when the category posts cannot be loaded', async () => {
  fetchMock.get('/api/posts?category=travel', 500);

  await act(async () => { render(<CategoryFilter />); });
  await act(async () => {
    fireEvent.change(screen.getByTestId('category-select'), { target: { value: 'travel' } });
  });

  expect(fetchMock.called('/api/posts?category=travel')).toBe(true);
  expect(screen.getByText(/failed to load posts/i)).toBeInTheDocument();
}, 10000);
