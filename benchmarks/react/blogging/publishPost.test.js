import React from 'react';
import { render, fireEvent, waitFor, screen } from '@testing-library/react';
import '@testing-library/jest-dom';
import fetchMock from 'fetch-mock';
import { act } from 'react';
import App from './publishPost';

afterEach(() => {
  fetchMock.reset();
  fetchMock.restore();
});

test('publishes a new post with its title and content', async () => {
  fetchMock.post('/api/posts', { status: 201, body: { id: 42 } });

  await act(async () => { render(<App />); });
  await act(async () => {
    fireEvent.change(screen.getByPlaceholderText(/post title/i), { target: { value: 'Spring in Kyoto' } });
  });
  await act(async () => {
    fireEvent.change(screen.getByPlaceholderText(/write your post/i), { target: { value: 'Cherry blossoms everywhere.' } });
  });
  await act(async () => { fireEvent.click(screen.getByText(/^publish$/i)); });

  expect(fetchMock.calls('/api/posts').length).toBe(1);
  expect(JSON.parse(fetchMock.lastOptions('/api/posts').body)).toMatchObject({
    title: 'Spring in Kyoto',
    content: 'Cherry blossoms everywhere.',
  });
  expect(screen.getByText(/post published/i)).toBeInTheDocument();
}, 10000);

test('shows an error when publishing fails', async () => {
  fetchMock.post('/api/posts', 500);

  await act(async () => { render(<App />); });
  await act(async () => {
    fireEvent.change(screen.getByPlaceholderText(/post title/i), { target: { value: 'Spring in Kyoto' } });
  });
  await act(async () => {
    fireEvent.change(screen.getByPlaceholderText(/write your post/i), { target: { value: 'Cherry blossoms everywhere.' } });
  });
  await act(async () => { fireEvent.click(screen.getByText(/^publish$/i)); });

  expect(fetchMock.calls('/api/posts').length).toBe(1);
  expect(screen.getByText(/failed to publish post/i)).toBeInTheDocument();
  expect(screen.queryByText(/post published/i)).not.toBeInTheDocument();
}, 10000);
