import React from 'react';
import { render, fireEvent, waitFor, screen } from '@testing-library/react';
import '@testing-library/jest-dom';
import fetchMock from 'fetch-mock';
import { act } from 'react';
import App from './postStatusUpdate';

afterEach(() => {
  fetchMock.reset();
  fetchMock.restore();
});

test('posts a status update and shows it in the feed', async () => {
  fetchMock.post('/api/statuses', {
    status: 201,
    body: { id: 301, text: 'Just finished my first marathon!', author: 'me' },
  });

  await act(async () => { render(<App />); });
  await act(async () => {
    fireEvent.change(screen.getByPlaceholderText("What's on your mind?"), {
      target: { value: 'Just finished my first marathon!' },
    });
  });
  await act(async () => { fireEvent.click(screen.getByRole('button', { name: /post/i })); });

  expect(fetchMock.calls('/api/statuses').length).toBe(1);
  expect(JSON.parse(fetchMock.lastOptions('/api/statuses').body)).toMatchObject({
    text: 'Just finished my first marathon!',
  });
  expect(screen.getByTestId('status-301')).toHaveTextContent('Just finished my first marathon!');
}, 10000);

test('shows an error when the status cannot be posted', async () => {
  fetchMock.post('/api/statuses', 500);

  await act(async () => { render(<App />); });
  await act(async () => {
    fireEvent.change(screen.getByPlaceholderText("What's on your mind?"), {
      target: { value: 'Just finished my first marathon!' },
    });
  });
  await act(async () => { fireEvent.click(screen.getByRole('button', { name: /post/i })); });

  expect(fetchMock.calls('/api/statuses').length).toBe(1);
  expect(screen.getByText(/failed to post update/i)).toBeInTheDocument();
}, 10000);
